// The dashboard's recharts charts: pure components fed with shaped data (./shape.ts).
import { useTheme } from '@mui/material';
import {
  Bar,
  BarChart,
  CartesianGrid,
  Cell,
  Legend,
  Line,
  LineChart,
  Pie,
  PieChart,
  ReferenceLine,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
} from 'recharts';
import type { ReactElement } from 'react';
import { formatDateTime, formatDayMonth, formatHourMinute } from '../../lib/datetime';
import { valueAxis, type SeriesRow, type Usage } from './shape';
import { CHART_HEIGHT } from './ChartPanel';

export const COLORS = {
  success: '#66bb6a',
  failed: '#ef5350',
  stopped: '#90a4ae',
  used: '#f4b860',
  red: '#ef5350',
  free: '#6b6b76',
  limit: '#ef9a9a',
};
/** Distinct line colours, one per series. */
export const PALETTE = [
  '#7cc6fe',
  '#f4b860',
  '#a5d6a7',
  '#ce93d8',
  '#ffab91',
  '#80cbc4',
  '#fff59d',
  '#b0bec5',
];

// Without ResizeObserver (jsdom) the container keeps this size; in a browser it follows its box.
const INITIAL = { width: 480, height: CHART_HEIGHT };

function Sized({ height = CHART_HEIGHT, children }: { height?: number; children: ReactElement }) {
  return (
    <ResponsiveContainer width="100%" height={height} initialDimension={{ ...INITIAL, height }}>
      {children}
    </ResponsiveContainer>
  );
}

function useAxis() {
  const theme = useTheme();
  return {
    tick: { fill: theme.palette.text.secondary, fontSize: 12 },
    stroke: theme.palette.divider,
    tooltip: {
      contentStyle: {
        background: theme.palette.background.paper,
        border: `1px solid ${theme.palette.divider}`,
        borderRadius: 8,
      },
      labelStyle: { color: theme.palette.text.primary },
      itemStyle: { color: theme.palette.text.primary },
    },
  };
}

export interface Slice {
  key: string;
  label: string;
  value: number;
  color: string;
}

/** A pie of labelled slices with a legend (success versus fail, allocated versus free). */
export function SlicesPie({
  slices,
  height = CHART_HEIGHT,
  center,
}: {
  slices: readonly Slice[];
  height?: number;
  center?: string;
}) {
  const axis = useAxis();
  return (
    <Sized height={height}>
      <PieChart>
        <Pie
          data={slices.map((s) => ({ name: s.label, value: s.value, key: s.key }))}
          dataKey="value"
          nameKey="name"
          innerRadius="45%"
          outerRadius="75%"
          isAnimationActive={false}
          stroke="none"
        >
          {slices.map((slice) => (
            <Cell key={slice.key} fill={slice.color} />
          ))}
        </Pie>
        {center ? (
          <text
            x="50%"
            y="45%"
            textAnchor="middle"
            dominantBaseline="middle"
            fill={axis.tick.fill}
            fontSize={16}
            fontWeight={600}
          >
            {center}
          </text>
        ) : null}
        <Tooltip {...axis.tooltip} />
        <Legend wrapperStyle={{ fontSize: 12 }} itemSorter={null} />
      </PieChart>
    </Sized>
  );
}

/** A usage pie: allocated (red at ≥ 90 %) versus free. */
export function UsagePie({
  usage,
  labels,
  percent,
}: {
  usage: Usage;
  labels: { used: string; free: string };
  percent: string;
}) {
  return (
    <SlicesPie
      height={220}
      center={percent}
      slices={[
        { key: 'used', label: labels.used, value: usage.used, color: usage.red ? COLORS.red : COLORS.used },
        { key: 'free', label: labels.free, value: usage.free, color: COLORS.free },
      ]}
    />
  );
}

export interface BarSeries {
  key: string;
  label: string;
  color: string;
}

const shorten = (text: string, max = 14) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

/** Bars per category (group runs, compared runs), one bar per series. */
export function CategoryBars({
  rows,
  series,
  stacked = false,
}: {
  rows: readonly Record<string, string | number>[];
  series: readonly BarSeries[];
  stacked?: boolean;
}) {
  const axis = useAxis();
  return (
    <Sized>
      <BarChart
        data={rows as Record<string, string | number>[]}
        margin={{ top: 8, right: 8, left: -8, bottom: 0 }}
      >
        <CartesianGrid stroke={axis.stroke} strokeDasharray="3 3" vertical={false} />
        <XAxis
          dataKey="name"
          tick={axis.tick}
          stroke={axis.stroke}
          tickFormatter={(value: string) => shorten(String(value))}
          interval="preserveStartEnd"
        />
        <YAxis tick={axis.tick} stroke={axis.stroke} allowDecimals={false} width={48} />
        <Tooltip {...axis.tooltip} cursor={{ fill: 'rgba(255,255,255,0.06)' }} />
        <Legend wrapperStyle={{ fontSize: 12 }} itemSorter={null} />
        {series.map((s) => (
          <Bar
            key={s.key}
            dataKey={s.key}
            name={s.label}
            fill={s.color}
            stackId={stacked ? 'all' : undefined}
            isAnimationActive={false}
            maxBarSize={48}
          />
        ))}
      </BarChart>
    </Sized>
  );
}

/** Time series with a limit annotation (a dashed reference line at the capacity or quota). */
export function LimitLines({
  rows,
  series,
  limit,
  limitLabel,
  unit,
  hourly,
}: {
  rows: readonly SeriesRow[];
  series: readonly { key: string; label: string }[];
  limit: number;
  limitLabel: string;
  unit: string;
  hourly: boolean;
}) {
  const axis = useAxis();
  // Spec 1 §9's DD/MM/YYYY HH:mm:ss, not the browser's locale (which may not be the console's language).
  const tick = hourly ? formatHourMinute : formatDayMonth;
  const yAxis = valueAxis(Math.max(limit, ...rows.flatMap((row) => series.map((s) => row[s.key] ?? 0))));
  return (
    <Sized>
      <LineChart data={rows as SeriesRow[]} margin={{ top: 16, right: 16, left: -8, bottom: 0 }}>
        <CartesianGrid stroke={axis.stroke} strokeDasharray="3 3" vertical={false} />
        <XAxis
          dataKey="x"
          type="number"
          scale="time"
          domain={['dataMin', 'dataMax']}
          tick={axis.tick}
          stroke={axis.stroke}
          tickFormatter={(value: number) => tick(value)}
          minTickGap={24}
        />
        <YAxis tick={axis.tick} stroke={axis.stroke} width={48} domain={[0, yAxis.max]} ticks={yAxis.ticks} />
        <Tooltip
          {...axis.tooltip}
          labelFormatter={(value) => formatDateTime(new Date(Number(value)))}
          formatter={(value) => `${String(value)} ${unit}`}
        />
        <Legend wrapperStyle={{ fontSize: 12 }} itemSorter={null} />
        {limit > 0 ? (
          <ReferenceLine
            y={limit}
            stroke={COLORS.limit}
            strokeDasharray="6 4"
            ifOverflow="extendDomain"
            label={{
              value: `${limitLabel} ${limit} ${unit}`,
              position: 'insideTopRight',
              fill: COLORS.limit,
              fontSize: 12,
            }}
          />
        ) : null}
        {series.map((s, index) => (
          <Line
            key={s.key}
            type="monotone"
            dataKey={s.key}
            name={s.label}
            stroke={PALETTE[index % PALETTE.length]}
            dot={rows.length < 2}
            isAnimationActive={false}
            connectNulls
          />
        ))}
      </LineChart>
    </Sized>
  );
}
