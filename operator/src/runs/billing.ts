// Billing (spec 2 §9): the smallest machine size of the price table that fits the step's requests,
// its hourly cost × 1.5, amount = execution time (ns) × 1e-9 ÷ 3600 × cost.
export const PRICE_TABLE: readonly { cpu: number; memory: number; cost: number }[] = [
  { cpu: 2000, memory: 2048, cost: 0.0192 },
  { cpu: 2000, memory: 4096, cost: 0.0384 },
  { cpu: 2000, memory: 8192, cost: 0.0768 },
  { cpu: 2000, memory: 16384, cost: 0.1184 },
  { cpu: 4000, memory: 16384, cost: 0.1536 },
  { cpu: 4000, memory: 32768, cost: 0.2368 },
  { cpu: 8000, memory: 32768, cost: 0.3072 },
  { cpu: 8000, memory: 65536, cost: 0.4736 },
  { cpu: 16000, memory: 131072, cost: 0.9472 },
];
export const PRICE_MARKUP = 1.5;

/** Smallest fitting size (the largest when nothing fits). */
export function machineFor(cpu: number, memory: number) {
  return PRICE_TABLE.find((m) => m.cpu >= cpu && m.memory >= memory) ?? PRICE_TABLE[PRICE_TABLE.length - 1]!;
}

export function billingAmount(executionNs: number, cpu: number, memory: number): number {
  const m = machineFor(cpu, memory);
  return ((executionNs * 1e-9) / 3600) * m.cost * PRICE_MARKUP;
}
