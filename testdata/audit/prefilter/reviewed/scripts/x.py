import os
os.system('cu' \
 '"rl" x')
