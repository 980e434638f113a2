// Layers only point one way (STYLE.md): protocol imports nothing of ours; db never imports
// socket.io, fastify or React; drawing is geometry (protocol's types only); web never imports db or
// server code; only apps/server joins them.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const rules = [
  { dir: 'packages/protocol/src', forbidden: [/^@wb\//, /^socket\.io/, /^react/, /^drizzle/, /^pg$/] },
  // drawing: geometry only, shared by web and server; it may read protocol's types and nothing else of ours.
  { dir: 'packages/drawing/src', forbidden: [/^@wb\/(?!protocol$)/, /^socket\.io/, /^react/, /^node:/, /^pdfkit/] },
  { dir: 'packages/db/src', forbidden: [/^socket\.io/, /^react/, /^fastify/, /^@fastify\//, /^@wb\/server/, /^@wb\/web/] },
  { dir: 'apps/web/src', forbidden: [/^@wb\/db/, /^@wb\/server/, /^pg$/, /^drizzle/, /^node:/] },
];

function* files(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* files(path);
    else if (/\.(ts|tsx)$/.test(name)) yield path;
  }
}

const problems = [];
for (const rule of rules) {
  for (const file of files(rule.dir)) {
    const source = readFileSync(file, 'utf8');
    for (const match of source.matchAll(/(?:from|import)\s*\(?\s*['"]([^'"]+)['"]/g)) {
      const spec = match[1];
      if (rule.forbidden.some((re) => re.test(spec))) problems.push(`${file}: imports ${spec}`);
    }
  }
}
if (problems.length > 0) {
  console.error(`Layer rules broken:\n${problems.join('\n')}`);
  process.exit(1);
}
console.log(`layers: ${rules.length} rules hold`);
