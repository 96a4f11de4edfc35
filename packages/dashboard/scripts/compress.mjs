// Writes .br and .gz beside every built asset so the control plane serves them precompressed
// (@fastify/static `preCompressed`): no compression work per request.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import zlib from "node:zlib";

const dist = fileURLToPath(new URL("../dist/", import.meta.url));
const COMPRESSIBLE = /\.(js|css|html|svg|json|txt)$/;

function walk(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    return e.isDirectory() ? walk(full) : [full];
  });
}

let raw = 0;
let br = 0;
for (const file of walk(dist).filter((f) => COMPRESSIBLE.test(f))) {
  const body = fs.readFileSync(file);
  const brotli = zlib.brotliCompressSync(body, {
    params: {
      [zlib.constants.BROTLI_PARAM_QUALITY]: 11,
      [zlib.constants.BROTLI_PARAM_SIZE_HINT]: body.length,
    },
  });
  fs.writeFileSync(`${file}.br`, brotli);
  fs.writeFileSync(`${file}.gz`, zlib.gzipSync(body, { level: 9 }));
  raw += body.length;
  br += brotli.length;
}
console.log(`dashboard: ${(raw / 1024).toFixed(1)} KiB, ${(br / 1024).toFixed(1)} KiB brotli`);
