/** Pieces every page uses: labelled fields, messages, the bar chart, polling. */
import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';

let fieldIds = 0;
/** A stable id for a label/control pair. */
export function useId(prefix: string): string {
  const id = useRef('');
  if (!id.current) id.current = `${prefix}-${++fieldIds}`;
  return id.current;
}

interface FieldProps {
  readonly label: string;
  readonly value: string;
  readonly onInput: (value: string) => void;
  readonly type?: string;
  readonly name?: string;
  readonly hint?: string;
  /** A validation message for this field: shown under it and announced. */
  readonly error?: string;
  readonly required?: boolean;
  readonly multiline?: number;
  readonly placeholder?: string;
  readonly autocomplete?: string;
  readonly list?: string;
  readonly inputMode?: 'numeric' | 'decimal' | 'email' | 'url' | 'tel' | 'text';
}

/** A text input (or textarea) with its label, hint and error message tied to it. */
export function Field(props: FieldProps) {
  const id = useId('f');
  const describedBy = [props.hint ? `${id}-hint` : '', props.error ? `${id}-error` : '']
    .filter(Boolean)
    .join(' ');
  const common = {
    id,
    name: props.name,
    value: props.value,
    required: props.required,
    placeholder: props.placeholder,
    autocomplete: props.autocomplete,
    'aria-invalid': props.error ? ('true' as const) : undefined,
    'aria-describedby': describedBy || undefined,
    onInput: (event: Event) => props.onInput((event.currentTarget as HTMLInputElement).value),
  };
  return (
    <div class={props.error ? 'field invalid' : 'field'}>
      <label for={id}>{props.label}</label>
      {props.multiline ? (
        <textarea {...common} rows={props.multiline} spellcheck={false} />
      ) : (
        <input
          {...common}
          type={(props.type ?? 'text') as 'text'}
          list={props.list}
          inputMode={props.inputMode}
        />
      )}
      {props.hint ? (
        <small id={`${id}-hint`} class="hint">
          {props.hint}
        </small>
      ) : null}
      {props.error ? (
        <small id={`${id}-error`} class="error-text" role="alert">
          {props.error}
        </small>
      ) : null}
    </div>
  );
}

interface SelectProps {
  readonly label: string;
  readonly value: string;
  readonly options: readonly (string | readonly [value: string, label: string])[];
  readonly onChange: (value: string) => void;
  readonly name?: string;
}

/** A select with its label. */
export function Select(props: SelectProps) {
  const id = useId('s');
  return (
    <div class="field">
      <label for={id}>{props.label}</label>
      <select
        id={id}
        name={props.name}
        value={props.value}
        onChange={(event) => props.onChange((event.currentTarget as HTMLSelectElement).value)}
      >
        {props.options.map((option) => {
          const [value, label] = typeof option === 'string' ? [option, option] : option;
          return (
            <option key={value} value={value}>
              {label}
            </option>
          );
        })}
      </select>
    </div>
  );
}

/** A checkbox with its label. */
export function Checkbox(props: { label: string; checked: boolean; onChange: (checked: boolean) => void }) {
  const id = useId('c');
  return (
    <div class="field checkbox">
      <input
        id={id}
        type="checkbox"
        checked={props.checked}
        onChange={(event) => props.onChange((event.currentTarget as HTMLInputElement).checked)}
      />
      <label for={id}>{props.label}</label>
    </div>
  );
}

/** An error (announced at once) or nothing. */
export function ErrorMessage(props: { message?: string }) {
  if (!props.message) return null;
  return (
    <p class="message error" role="alert">
      {props.message}
    </p>
  );
}

/** A polite status line (announced when it changes). */
export function Status(props: { children?: ComponentChildren }) {
  return (
    <p class="message status" role="status" aria-live="polite">
      {props.children}
    </p>
  );
}

export interface Bar {
  readonly label: string;
  readonly value: number;
}

interface BarsProps {
  readonly caption: string;
  readonly bars: readonly Bar[];
  /** `signed`: bars left (negative) and right (positive) of a middle axis; `fraction`: 0 to 1. */
  readonly scale: 'signed' | 'fraction';
  readonly format: (value: number) => string;
  readonly valueHeader: string;
  readonly labelHeader: string;
}

/**
 * A horizontal bar chart as a table: the numbers stay readable (and read out) and each row's bar
 * is a small inline SVG, so the chart works at any width and with no chart library.
 */
export function Bars(props: BarsProps) {
  const max =
    props.scale === 'fraction' ? 1 : Math.max(1e-9, ...props.bars.map((bar) => Math.abs(bar.value)));
  return (
    <figure class="chart">
      <figcaption>{props.caption}</figcaption>
      <table class="bars">
        <thead>
          <tr>
            <th scope="col">{props.labelHeader}</th>
            <th scope="col" class="num">
              {props.valueHeader}
            </th>
            <th scope="col" class="bar-col">
              <span class="visually-hidden">Bar</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {props.bars.map((bar) => (
            <tr key={bar.label}>
              <th scope="row">{bar.label}</th>
              <td class="num">{props.format(bar.value)}</td>
              <td class="bar-col">
                <BarSvg value={bar.value} max={max} signed={props.scale === 'signed'} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </figure>
  );
}

function BarSvg(props: { value: number; max: number; signed: boolean }) {
  const width = 200;
  const origin = props.signed ? width / 2 : 0;
  const span = props.signed ? width / 2 : width;
  const length = (Math.min(Math.abs(props.value), props.max) / props.max) * span;
  const x = props.value < 0 ? origin - length : origin;
  const tone = props.signed ? (props.value < 0 ? 'against' : 'for') : 'share';
  return (
    <svg viewBox={`0 0 ${width} 14`} preserveAspectRatio="none" aria-hidden="true" class="bar-svg">
      <rect class="track" x="0" y="2" width={width} height="10" />
      <rect class={`bar ${tone}`} x={x} y="2" width={Math.max(length, 0.5)} height="10" />
      {props.signed ? <line class="axis" x1={origin} x2={origin} y1="0" y2="14" /> : null}
    </svg>
  );
}

/**
 * Calls `tick` now and every `ms` while `active`; stops when the component goes away. `tick`
 * may be async; a slow answer never overlaps the next call.
 */
export function usePoll(
  tick: () => unknown,
  ms: number,
  active: boolean,
  deps: readonly unknown[] = [],
): void {
  const latest = useRef(tick);
  latest.current = tick;
  useEffect(() => {
    if (!active) return;
    let stopped = false;
    let timer: number | undefined;
    const run = async () => {
      try {
        await latest.current();
      } finally {
        if (!stopped) timer = window.setTimeout(run, ms);
      }
    };
    run();
    return () => {
      stopped = true;
      window.clearTimeout(timer);
    };
  }, [active, ms, ...deps]);
}

/** A probability as `0.999 (99.9 %)`. */
export function formatScore(score: number): string {
  return `${score.toFixed(3)} (${(score * 100).toFixed(1)} %)`;
}

/** A JSON value in a compact readable form. */
export function formatValue(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}
