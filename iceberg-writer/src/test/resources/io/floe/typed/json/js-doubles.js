const n = parseInt(process.argv[2]);
const buf = new DataView(new ArrayBuffer(8));
const out = [];
function emit(d) { buf.setFloat64(0, d); out.push(buf.getBigUint64(0).toString(16).padStart(16,'0') + ' ' + JSON.stringify(d)); }
const specials = [0, -0, 1, -1, 1.5, 0.1, 0.2+0.1, 1e21, 1e-7, 1e-6, 123456789012345680000, 1e20, 5e-324, -5e-324, Number.MAX_VALUE, Number.MIN_VALUE, 2**53, 2**53+2, 1/3, 100, 1e7, 12345.678, 9.999999999999999e22, 1e23, 0.000001, 0.0000001, 4.35, 2.5e-8];
for (const s of specials) emit(s);
for (let i = 0; i < n; i++) {
  const lo = Math.floor(Math.random() * 2**32), hi = Math.floor(Math.random() * 2**32);
  buf.setUint32(0, hi); buf.setUint32(4, lo);
  let d = buf.getFloat64(0);
  if (!isFinite(d)) continue;
  if (i % 3 == 0) { d = Number(d.toPrecision(1 + (i % 17))); }
  if (i % 5 == 1) { d = Math.round(Math.random() * 1e6) / 100; }
  if (i % 7 == 2) { d = (Math.random() - 0.5) * 10 ** Math.floor(Math.random()*60 - 30); }
  if (!isFinite(d)) continue;
  emit(d);
}
console.log(out.join('\n'));
