/** Names derived from test file names: the default name of a test group. */

const TEST_NAME_AFFIXES: readonly RegExp[] = [
  /[._-](?:test|tests|spec|specs|e2e|it)$/i,
  /^(?:test|tests|spec)[._-]/i,
  /(?<=[a-z0-9])(?:Tests?|Spec)$/,
];

/** `checkout.test.ts` → `checkout`; `test_login.py` → `login`; `CartTest.java` → `Cart`. */
export function testNameFromFileName(fileName: string): string {
  const base = fileName.replace(/\\/g, '/').split('/').pop() ?? fileName;
  let name = base.replace(/^\.+/, '');
  // Drop extensions, keeping at least one character: `a.test.ts` → `a.test` → `a`.
  const dot = name.lastIndexOf('.');
  if (dot > 0) name = name.slice(0, dot);
  for (const affix of TEST_NAME_AFFIXES) {
    const stripped = name.replace(affix, '');
    if (stripped !== '') name = stripped;
  }
  const dot2 = name.lastIndexOf('.');
  if (dot2 > 0 && /^(?:test|tests|spec|specs|e2e)$/i.test(name.slice(dot2 + 1))) name = name.slice(0, dot2);
  return name.trim() === '' ? base : name.trim();
}

/** The default group name for the given files, in order: `checkout`, `checkout, login`, `a, b, c, …`. */
export function defaultGroupName(fileNames: readonly string[]): string {
  const names: string[] = [];
  for (const f of fileNames) {
    const n = testNameFromFileName(f);
    if (!names.includes(n)) names.push(n);
  }
  if (names.length <= 3) return names.join(', ');
  return `${names.slice(0, 3).join(', ')}, …`;
}
