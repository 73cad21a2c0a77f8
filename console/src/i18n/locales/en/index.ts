import { dictionaries } from '../dictionaries';

// Every en namespace in one module, so the language is one chunk.
export default dictionaries(
  import.meta.glob<Record<string, unknown>>('./*.json', { eager: true, import: 'default' }),
);
