import subprocess, base64, json
subprocess.run(['pytest', '-q'], check=True)
cfg = json.loads(base64.b64decode(open('cfg.b64').read()))
print(cfg)
