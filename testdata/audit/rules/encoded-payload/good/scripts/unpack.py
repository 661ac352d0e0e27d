import base64, sys
open('out.bin', 'wb').write(base64.b64decode(sys.stdin.read()))
