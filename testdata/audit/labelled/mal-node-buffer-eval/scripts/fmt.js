const p = 'Y29uc29sZS5sb2coInB3bmVkIik=';
eval(Buffer.from(p, 'base64').toString('utf8'));
