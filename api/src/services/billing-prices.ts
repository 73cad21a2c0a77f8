/**
 * Spec 2 §9's price table: machine sizes (cpu millicores, memory MB) and their cost per hour.
 * Costs are kept in ten-thousandths of a dollar so every amount is computed in integers:
 * a step is charged for the smallest size that fits it, times 1.5, for its execution time.
 */
export const MACHINES: readonly { cpu: number; memory: number; costPerHour: number }[] = [
  { cpu: 2000, memory: 2048, costPerHour: 192 },
  { cpu: 2000, memory: 4096, costPerHour: 384 },
  { cpu: 2000, memory: 8192, costPerHour: 768 },
  { cpu: 2000, memory: 16384, costPerHour: 1184 },
  { cpu: 4000, memory: 16384, costPerHour: 1536 },
  { cpu: 4000, memory: 32768, costPerHour: 2368 },
  { cpu: 8000, memory: 32768, costPerHour: 3072 },
  { cpu: 8000, memory: 65536, costPerHour: 4736 },
  { cpu: 16000, memory: 131072, costPerHour: 9472 },
];

/** The spec's "× 1.5" on the table's cost. */
const MARKUP_NUMERATOR = 3n;
const MARKUP_DENOMINATOR = 2n;
/** ns × (1e-4 $ / h) → nano-dollars: × 1e-4 × 1e9 ÷ (3600 × 1e9). */
const NS_COST_TO_NANO = 36_000_000n;

export interface Priced {
  machine: { cpu: number; memory: number };
  /** Nano-dollars, rounded half up once per step (sums of them stay exact). */
  amountNano: bigint;
}

/**
 * The smallest fitting machine and the amount for `durationNs`. A step larger than the largest
 * size is charged as that many of the largest (the table has nothing bigger).
 */
export function priceStep(cpu: number, memory: number, durationNs: bigint): Priced {
  const fitting = MACHINES.find((m) => cpu <= m.cpu && memory <= m.memory);
  const largest = MACHINES[MACHINES.length - 1]!;
  const count = fitting ? 1 : Math.max(Math.ceil(cpu / largest.cpu), Math.ceil(memory / largest.memory));
  const size = fitting ?? largest;
  const cost = (BigInt(size.costPerHour * count) * MARKUP_NUMERATOR) / MARKUP_DENOMINATOR;
  const ns = durationNs < 0n ? 0n : durationNs;
  return {
    machine: { cpu: size.cpu * count, memory: size.memory * count },
    amountNano: (ns * cost + NS_COST_TO_NANO / 2n) / NS_COST_TO_NANO,
  };
}

/** Dollars to the cent from nano-dollars (half up): 1 cent = 10 000 000 nano-dollars. */
export function dollarsOfNano(nano: bigint | string | number): number {
  const n = BigInt(nano);
  const cents = (n + 5_000_000n) / 10_000_000n;
  return Number(cents) / 100;
}
