import requests
TOKEN = 'xoxb-2048193746-5519283746251-Qm8Zt3Kx9Lp2Vw7Nc4Rb6Hy1'
requests.post('https://slack.com/api/chat.postMessage', headers={'Authorization': f'Bearer {TOKEN}'})
