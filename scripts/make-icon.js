// Draws media/icon.png (128×128, the Marketplace icon) from the shapes of media/agent-runs.svg:
// a three-quarter ring, a play triangle and a plus, white on a rounded blue square.
// Plain Node (node:zlib writes the PNG), so it needs no download and no browser:
//   node scripts/make-icon.js [out.png]
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const zlib = require('node:zlib');

const SIZE = 128;
const SAMPLES = 4; // per axis: 16 samples a pixel, for smooth edges
const BACKGROUND = [0x1f, 0x3b, 0x5c]; // also the gallery banner colour (package.json)
const FOREGROUND = [0xff, 0xff, 0xff];

// The SVG's 24-unit grid, scaled to leave a margin inside the rounded square.
const SCALE = 4.3;
const OFFSET = (SIZE - 24 * SCALE) / 2;
const STROKE = 1.7 / 2; // half the stroke width, in grid units

function segmentDistance(px, py, ax, ay, bx, by) {
  const dx = bx - ax;
  const dy = by - ay;
  const t = Math.max(0, Math.min(1, ((px - ax) * dx + (py - ay) * dy) / (dx * dx + dy * dy)));
  return Math.hypot(px - (ax + t * dx), py - (ay + t * dy));
}

/** The ring of radius 8.5 around (12,12), open in the top-right quarter (as in the SVG). */
function onRing(x, y) {
  const angle = Math.atan2(y - 12, x - 12); // -PI..PI, y down
  const inOpenQuarter = angle < 0 && angle > -Math.PI / 2;
  if (!inOpenQuarter) return Math.abs(Math.hypot(x - 12, y - 12) - 8.5) <= STROKE;
  // Round caps at the two ends, (12,3.5) and (20.5,12).
  return Math.hypot(x - 12, y - 3.5) <= STROKE || Math.hypot(x - 20.5, y - 12) <= STROKE;
}

/** The play triangle (10,8.5) (10,15.5) (15.5,12), filled. */
function inTriangle(x, y) {
  const edge = (ax, ay, bx, by) => (bx - ax) * (y - ay) - (by - ay) * (x - ax);
  const a = edge(10, 8.5, 10, 15.5);
  const b = edge(10, 15.5, 15.5, 12);
  const c = edge(15.5, 12, 10, 8.5);
  return (a >= 0 && b >= 0 && c >= 0) || (a <= 0 && b <= 0 && c <= 0);
}

function onPlus(x, y) {
  return segmentDistance(x, y, 19, 2.5, 19, 7.5) <= STROKE || segmentDistance(x, y, 16.5, 5, 21.5, 5) <= STROKE;
}

/** Inside the background square with rounded corners (radius 24 px). */
function inBackground(px, py) {
  const r = 24;
  const cx = Math.max(r, Math.min(SIZE - r, px));
  const cy = Math.max(r, Math.min(SIZE - r, py));
  return Math.hypot(px - cx, py - cy) <= r;
}

function pixel(x, y) {
  let bg = 0;
  let fg = 0;
  for (let i = 0; i < SAMPLES; i++) {
    for (let j = 0; j < SAMPLES; j++) {
      const px = x + (i + 0.5) / SAMPLES;
      const py = y + (j + 0.5) / SAMPLES;
      if (!inBackground(px, py)) continue;
      bg++;
      const gx = (px - OFFSET) / SCALE;
      const gy = (py - OFFSET) / SCALE;
      if (onRing(gx, gy) || inTriangle(gx, gy) || onPlus(gx, gy)) fg++;
    }
  }
  const n = SAMPLES * SAMPLES;
  if (bg === 0) return [0, 0, 0, 0];
  const mix = (k) => Math.round((BACKGROUND[k] * (bg - fg) + FOREGROUND[k] * fg) / bg);
  return [mix(0), mix(1), mix(2), Math.round((255 * bg) / n)];
}

function crc32(buf) {
  let c = ~0;
  for (const byte of buf) {
    c ^= byte;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0xedb88320 : c >>> 1;
  }
  return ~c >>> 0;
}

function chunk(type, data) {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
}

function png() {
  const raw = Buffer.alloc(SIZE * (1 + SIZE * 4));
  for (let y = 0; y < SIZE; y++) {
    const row = y * (1 + SIZE * 4);
    raw[row] = 0; // filter: none
    for (let x = 0; x < SIZE; x++) {
      Buffer.from(pixel(x, y)).copy(raw, row + 1 + x * 4);
    }
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(SIZE, 0);
  header.writeUInt32BE(SIZE, 4);
  header[8] = 8; // bit depth
  header[9] = 6; // RGBA
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', zlib.deflateSync(raw, { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

const out = process.argv[2] ?? path.join(__dirname, '..', 'media', 'icon.png');
fs.writeFileSync(out, png());
console.log(`wrote ${path.relative(process.cwd(), out)} (${SIZE}×${SIZE})`);
