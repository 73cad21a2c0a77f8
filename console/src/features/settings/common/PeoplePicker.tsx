import { Autocomplete, TextField } from '@mui/material';
import type { Username } from '../types';

/** A multiple choice of people by e-mail; the value is their ids. */
export function PeoplePicker({
  label,
  people,
  value,
  onChange,
}: {
  label: string;
  people: readonly Username[];
  value: string[];
  onChange: (ids: string[]) => void;
}) {
  const byId = new Map(people.map((p) => [p.id, p]));
  return (
    <Autocomplete
      multiple
      size="small"
      options={people.map((p) => p.id)}
      value={value}
      getOptionLabel={(id) => byId.get(id)?.email ?? id}
      onChange={(_e, ids) => onChange(ids)}
      renderInput={(params) => <TextField {...params} label={label} />}
    />
  );
}
