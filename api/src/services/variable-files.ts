// POST /parse/variables: a sandbox's environment variables imported from a file (spec 1 §5:
// the picker accepts csv, json and yml). CSV rows are `name,value` (a `name,value` header is
// skipped); JSON and YAML hold a list of {name, value} or a map of name → value.
import { parse as parseCsv } from 'csv-parse/sync';
import { parse as parseYaml } from 'yaml';
import { badRequest } from '../errors.js';

export interface Variable {
  name: string;
  value: string;
}

export const VARIABLE_FILE_TYPES = ['csv', 'json', 'yml', 'yaml'] as const;
export const MAX_VARIABLE_FILE_BYTES = 1024 * 1024;
const MAX_NAME = 256;
const MAX_VALUE = 65_536;

const invalid = (file: string, problem: string) => badRequest(`file ${file}: ${problem}`, 'invalid_file');

function typeOf(fileName: string): (typeof VARIABLE_FILE_TYPES)[number] {
  const extension = fileName.toLowerCase().split('.').pop() ?? '';
  const found = VARIABLE_FILE_TYPES.find((t) => t === extension);
  if (!found) throw invalid(fileName, 'must be a .csv, .json or .yml file');
  return found;
}

function checked(file: string, where: string, name: unknown, value: unknown): Variable {
  if (typeof name !== 'string') throw invalid(file, `${where}: the name must be text`);
  if (value !== null && value !== undefined && typeof value === 'object')
    throw invalid(file, `${where}: the value of ${name} must be text, a number or a boolean`);
  const text = value === null || value === undefined ? '' : String(value as string | number | boolean);
  if (name.includes('\0') || text.includes('\0')) throw invalid(file, `${where}: contains a NUL byte`);
  if (name.length > MAX_NAME) throw invalid(file, `${where}: the name is longer than ${MAX_NAME} characters`);
  if (text.length > MAX_VALUE)
    throw invalid(file, `${where}: the value of ${name} is longer than ${MAX_VALUE} characters`);
  return { name: name.trim(), value: text };
}

function fromCsv(file: string, text: string): Variable[] {
  let rows: string[][];
  try {
    rows = parseCsv(text, { skip_empty_lines: true, bom: true, relax_column_count: true, trim: true });
  } catch (error) {
    throw Object.assign(invalid(file, (error as Error).message), { cause: error });
  }
  const first = rows[0];
  const header = first?.[0]?.toLowerCase() === 'name' && first[1]?.toLowerCase() === 'value';
  return rows.slice(header ? 1 : 0).map((row, i) => {
    const line = `line ${i + (header ? 2 : 1)}`;
    if (row.length !== 2) throw invalid(file, `${line}: expected name,value (got ${row.length} columns)`);
    return checked(file, line, row[0], row[1]);
  });
}

function fromStructured(file: string, data: unknown): Variable[] {
  if (Array.isArray(data))
    return data.map((item: unknown, i) => {
      const entry = item as { name?: unknown; value?: unknown } | null;
      if (!entry || typeof entry !== 'object' || Array.isArray(entry))
        throw invalid(file, `item ${i + 1}: expected {name, value}`);
      return checked(file, `item ${i + 1}`, entry.name, entry.value);
    });
  if (data && typeof data === 'object')
    return Object.entries(data).map(([name, value]) => checked(file, `key ${name}`, name, value));
  throw invalid(file, 'expected a list of {name, value} or a map of name to value');
}

export function parseVariableFile(fileName: string, bytes: Buffer): Variable[] {
  const type = typeOf(fileName);
  const text = bytes.toString('utf8');
  if (type === 'csv') return fromCsv(fileName, text);
  let data: unknown;
  try {
    data = type === 'json' ? JSON.parse(text) : parseYaml(text, { maxAliasCount: 100 });
  } catch (error) {
    throw Object.assign(invalid(fileName, (error as Error).message), { cause: error });
  }
  return fromStructured(fileName, data ?? []);
}
