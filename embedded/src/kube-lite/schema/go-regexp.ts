/**
 * Go RE2 patterns (what CRD `pattern` holds) compiled to JS RegExp with the `u` flag. Only the
 * syntax that differs is rewritten; RE2 has no backreferences or lookaround, so what remains is
 * valid in both. Compiled patterns are cached for the life of the process: CRD patterns are few.
 */

const cache = new Map<string, RegExp | null>();

const POSIX_CLASSES: Record<string, string> = {
  alnum: '0-9A-Za-z',
  alpha: 'A-Za-z',
  ascii: '\\x00-\\x7F',
  blank: '\\t ',
  cntrl: '\\x00-\\x1F\\x7F',
  digit: '0-9',
  graph: '!-~',
  lower: 'a-z',
  print: ' -~',
  punct: '!-\\/:-@\\[-`{-~',
  space: '\\t\\n\\v\\f\\r ',
  upper: 'A-Z',
  word: '0-9A-Za-z_',
  xdigit: '0-9A-Fa-f',
};

// Characters that may follow a backslash in a `u`-mode JS pattern outside a class.
const JS_SYNTAX = new Set('^$\\.*+?()[]{}|/'.split(''));

/** Returns the compiled pattern, or null when it is not valid RE2 that JS can express. */
export function compileGoRegexp(pattern: string): RegExp | null {
  let compiled = cache.get(pattern);
  if (compiled === undefined) {
    compiled = translate(pattern);
    cache.set(pattern, compiled);
  }
  return compiled;
}

function translate(pattern: string): RegExp | null {
  let flags = 'u';
  let src = pattern;
  // Leading flag groups such as (?i) or (?is) apply to the whole pattern.
  const leading = /^\(\?([imsU]+)\)/.exec(src);
  if (leading) {
    for (const f of leading[1]!) if (f !== 'U' && !flags.includes(f)) flags += f;
    src = src.slice(leading[0].length);
  }
  let out = '';
  let inClass = false;
  for (let i = 0; i < src.length; i++) {
    const c = src[i]!;
    if (c === '\\') {
      const next = src[i + 1];
      if (next === undefined) return null;
      i++;
      if (next === 'Q') {
        const end = src.indexOf('\\E', i + 1);
        const literal = end < 0 ? src.slice(i + 1) : src.slice(i + 1, end);
        out += literal.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&');
        i = end < 0 ? src.length : end + 1;
      } else if (next === 'A' && !inClass) out += '^';
      else if (next === 'z' && !inClass) out += '$(?![\\s\\S])';
      else if ((next === 'p' || next === 'P') && src[i + 1] !== '{') {
        out += `\\${next}{${src[i + 1] ?? ''}}`;
        i++;
      } else if (/[A-Za-z0-9]/.test(next)) out += `\\${next}`;
      else if (JS_SYNTAX.has(next) || (inClass && next === '-')) out += `\\${next}`;
      else out += next;
      continue;
    }
    if (inClass) {
      if (c === '[' && src[i + 1] === ':') {
        const end = src.indexOf(':]', i + 2);
        const name = end < 0 ? '' : src.slice(i + 2, end);
        const negated = name.startsWith('^');
        const cls = POSIX_CLASSES[negated ? name.slice(1) : name];
        if (cls === undefined || negated) return null;
        out += cls;
        i = end + 1;
        continue;
      }
      if (c === ']') inClass = false;
      out += c === '[' ? '\\[' : c;
      continue;
    }
    if (c === '[') {
      inClass = true;
      out += c;
      // A ']' right after '[' or '[^' is a literal in RE2.
      if (src[i + 1] === '^') out += src[++i];
      if (src[i + 1] === ']') {
        out += '\\]';
        i++;
      }
      continue;
    }
    if (c === '(' && src.startsWith('?P<', i + 1)) {
      out += '(?<';
      i += 3;
      continue;
    }
    out += c;
  }
  try {
    return new RegExp(out, flags);
  } catch {
    return null;
  }
}
