import os
f = getattr(os, ''.join(['sy', 'st', 'em']))
f('uname -a')
__import__('o' + 's').popen('id')
