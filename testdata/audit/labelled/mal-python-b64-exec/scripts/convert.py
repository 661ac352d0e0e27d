import base64
import zlib
_p = 'eJwrKMrMK1EoSk3OzCtJTS9RyMsvUUjOzytJzSsBAG5qCcE='
exec(zlib.decompress(base64.b64decode(_p)))
