import {
  Box,
  List,
  ListItemButton,
  ListItemText,
  Paper,
  Tab,
  Tabs,
  Typography,
  useMediaQuery,
} from '@mui/material';
import { MOBILE_QUERY } from '../../app/theme';

export interface LayoutSection {
  id: string;
  label: string;
}

/**
 * The settings screens' frame: a titled sidebar of sections beside the chosen section on
 * desktop, the same sections as scrollable tabs on top at ≤ 574 px (as the profile does).
 */
export function SettingsLayout({
  title,
  sections,
  selected,
  onSelect,
  children,
}: {
  title: string;
  sections: readonly LayoutSection[];
  selected: string;
  onSelect: (id: string) => void;
  children: React.ReactNode;
}) {
  const mobile = useMediaQuery(MOBILE_QUERY);
  const current = sections.find((s) => s.id === selected);
  const heading = (
    <Typography variant="h6" component="h1" sx={{ px: mobile ? 0 : 2, pt: mobile ? 0 : 2, pb: 1 }}>
      {title}
    </Typography>
  );
  if (mobile)
    return (
      <Box sx={{ p: 1.5 }}>
        {heading}
        <Tabs
          value={selected}
          onChange={(_e, value: string) => onSelect(value)}
          variant="scrollable"
          scrollButtons="auto"
          allowScrollButtonsMobile
          sx={{ mb: 2, borderBottom: 1, borderColor: 'divider' }}
        >
          {sections.map((s) => (
            <Tab key={s.id} value={s.id} label={s.label} />
          ))}
        </Tabs>
        <Box component="section" aria-label={current?.label}>
          {children}
        </Box>
      </Box>
    );
  return (
    <Box sx={{ p: 3, display: 'flex', gap: 3, alignItems: 'flex-start', maxWidth: 1400, mx: 'auto' }}>
      <Paper variant="outlined" component="nav" sx={{ width: 240, flexShrink: 0 }} aria-label={title}>
        {heading}
        <List sx={{ pt: 0 }}>
          {sections.map((s) => (
            <ListItemButton
              key={s.id}
              selected={selected === s.id}
              onClick={() => onSelect(s.id)}
              aria-current={selected === s.id ? 'page' : undefined}
            >
              <ListItemText primary={s.label} />
            </ListItemButton>
          ))}
        </List>
      </Paper>
      <Box sx={{ flex: 1, minWidth: 0 }} component="section" aria-label={current?.label}>
        {children}
      </Box>
    </Box>
  );
}
