/** A time-series chart drawn by uPlot into a canvas; the numbers are also given as a table. */
import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import { html } from './html';

export interface Series {
  label: string;
  values: (number | null)[];
  /** A CSS colour; each series also has its own dash, so colour is not the only difference. */
  stroke: string;
  dash?: number[];
  bars?: boolean;
}

export function Chart({
  title,
  times,
  stepInSeconds,
  series,
  unit,
}: {
  title: string;
  /** Each bucket's start, in seconds (uPlot's time unit). */
  times: number[];
  stepInSeconds: number;
  series: Series[];
  unit: string;
}) {
  const frame = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const element = frame.current;
    if (!element) return;
    const plot = new uPlot(
      {
        width: Math.max(element.clientWidth, 300),
        height: 220,
        // Half a bucket either side, so the first and last bars are drawn whole.
        scales: {
          x: { time: true, range: (_plot, min, max) => [min - stepInSeconds / 2, max + stepInSeconds / 2] },
        },
        axes: [{}, { label: unit, size: 60 }],
        series: [
          {},
          ...series.map((each) => ({
            label: each.label,
            stroke: each.stroke,
            width: 2,
            dash: each.dash,
            fill: each.bars ? `${each.stroke}55` : undefined,
            paths: each.bars ? uPlot.paths.bars?.({ size: [0.6, 40] }) : undefined,
            points: { show: !each.bars },
          })),
        ],
      },
      [times, ...series.map((each) => each.values)] as uPlot.AlignedData,
      element,
    );
    const observer = new ResizeObserver(() =>
      plot.setSize({ width: Math.max(element.clientWidth, 300), height: 220 }),
    );
    observer.observe(element);
    return () => {
      observer.disconnect();
      plot.destroy();
    };
  }, [times, stepInSeconds, series, unit]);
  return html`<figure class="chart">
    <figcaption>${title}</figcaption>
    <div ref=${frame} role="img" aria-label=${`${title}: ${series.map((each) => each.label).join(' and ')} over time; the numbers are in the table below`}></div>
  </figure>`;
}
