import subprocess
subprocess.run(['id'], check=True)
