// Checks canonicalKey of the SDK (the module given as the first argument)
// against the key name table given as the second (proto/testdata/keys.txt),
// for the Go test of ext/node. Prints one line per mismatch and, last,
// "checked N".
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

const zut = await import(pathToFileURL(process.argv[2]).href);
let n = 0;
let bad = 0;
const show = (v) => JSON.stringify(v);
for (let line of readFileSync(process.argv[3], 'utf8').split('\n')) {
  line = line.trim();
  if (line === '' || line.startsWith('#')) continue;
  const c = JSON.parse(line);
  n++;
  let got = null;
  let err = null;
  try {
    got = zut.canonicalKey(c.in);
  } catch (e) {
    if (!(e instanceof zut.KeyNameError)) throw e;
    err = e;
  }
  if ('key' in c) {
    if (err !== null || got !== c.key) {
      bad++;
      console.log(`canonicalKey(${show(c.in)}) = ${show(got)}, ${err && err.message}, want ${show(c.key)}`);
    } else if (zut.canonicalKey(got) !== got) {
      bad++;
      console.log(`canonicalKey(${show(got)}) = ${show(zut.canonicalKey(got))}, want it unchanged`);
    }
  } else if (err === null || err.reason !== c.error || err.key !== c.in) {
    bad++;
    console.log(`canonicalKey(${show(c.in)}) = ${show(got)}, ${show(err && err.reason)}, want the error ${show(c.error)}`);
  }
}
console.log(`checked ${n}`);
process.exit(bad ? 1 : 0);
