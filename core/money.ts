/** Float sums and products of dollars drift (0.1 + 0.2); a billionth of a dollar is far below anything that is billed. */
export function roundedUsd(value: number): number {
  return Math.round(value * 1e9) / 1e9;
}
