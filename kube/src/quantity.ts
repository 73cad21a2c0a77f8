// Kubernetes resource quantities (k8s.io/apimachinery/pkg/api/resource): a signed decimal number
// followed by a binary-SI suffix (Ki … Ei), a decimal-SI suffix (n u m "" k M G T P E) or a decimal
// exponent (e3, E-2). client-node's quantityToScalar is not exported from the package and throws on
// fractions such as "1.5Gi", so the grammar is implemented here.

const SUFFIX: Record<string, number> = {
  n: 1e-9,
  u: 1e-6,
  m: 1e-3,
  '': 1,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
};

const QUANTITY =
  /^([+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+))(?:([eE][+-]?[0-9]+)|(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]))?$/;

/** The value of a quantity in base units (cores, bytes); throws on text that is not a quantity. */
export function parseQuantity(q: string | number): number {
  if (typeof q === 'number') return q;
  const m = QUANTITY.exec(q.trim());
  if (!m) throw new Error(`"${q}" is not a Kubernetes quantity`);
  const n = Number(m[1]);
  if (m[2]) return n * 10 ** Number(m[2].slice(1));
  return n * SUFFIX[m[3] ?? '']!;
}

/** CPU in millicores, rounded up as Kubernetes' MilliValue does; absent = 0. */
export function cpuMillis(q: string | number | undefined): number {
  if (q === undefined || q === '') return 0;
  // Rounded to nanocores first so that 0.1 × 1000 does not become 100.00000000000001 → 101.
  return Math.ceil(Math.round(parseQuantity(q) * 1e12) / 1e9);
}

/** Memory or storage in MiB (2^20 bytes, the unit of the product's "MB"); absent = 0. */
export function memoryMiB(q: string | number | undefined): number {
  if (q === undefined || q === '') return 0;
  return parseQuantity(q) / 2 ** 20;
}
