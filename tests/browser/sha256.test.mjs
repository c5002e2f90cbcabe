// The page's own SHA-256 (web/api.js), used for the replay's seed check where the browser has
// no crypto.subtle (plain-HTTP origins): FIPS 180-4 and NIST test vectors, and agreement with
// node's digest on lengths around the padding boundaries. Run by scripts/browser_test.sh.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { sha256 } from "../../web/api.js";

const hex = (b) => Buffer.from(b).toString("hex");
const enc = (s) => new TextEncoder().encode(s);

const vectors = [
  ["", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"],
  ["abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"],
  ["abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
    "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"],
  ["abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
    "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"],
  ["a".repeat(1_000_000), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"],
];
for (const [input, want] of vectors) assert.equal(hex(sha256(enc(input))), want, `sha256 of ${input.length} bytes`);

for (let n = 0; n < 200; n++) {
  const bytes = new Uint8Array(n).map((_, i) => (i * 31 + n) & 0xff);
  assert.equal(hex(sha256(bytes)), createHash("sha256").update(bytes).digest("hex"), `${n} bytes`);
}
console.log("sha256: 5 vectors and 200 lengths agree");
