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
 * desktop, the same sections as tabs on top at ≤ 574 px. The profile uses it too.
 */
export function SettingsLayout({
  title,
  sections,
  selected,
  onSelect,
  children,
  maxWidth = 1400,
  tabs = 'scrollable',
}: {
  title: string;
  sections: readonly LayoutSection[];
  selected: string;
  onSelect: (id: string) => void;
  children: React.ReactNode;
  /** The frame's widest (px) on desktop. */
  maxWidth?: number;
  /** The tabs at ≤ 574 px: scrollable for many sections, fullWidth for a few. */
  tabs?: 'scrollable' | 'fullWidth';
}) {
  const mobile = useMediaQuery(MOBILE_QUERY);
  const current = sections.find((s) => s.id === selected);
  const heading = (
    <Typography variant="h6" component="h1" sx={{ px: mobile ? 0 : 2, pt: mobile ? 0 : 2, pb: 1 }}>
      {title}
    </Typography>
  );
  // The section keeps its place in the tree in both layouts, so crossing 574 px (a rotated
  // tablet, a resized window) re-renders it instead of remounting it: an open flyout or an
  // unsaved form survives.
  return (
    <Box
      sx={
        mobile
          ? { p: 1.5 }
          : { p: 3, display: 'flex', gap: 3, alignItems: 'flex-start', maxWidth, mx: 'auto' }
      }
    >
      {mobile ? (
        <Box>
          {heading}
          <Tabs
            value={selected}
            onChange={(_e, value: string) => onSelect(value)}
            variant={tabs}
            {...(tabs === 'scrollable' && { scrollButtons: 'auto', allowScrollButtonsMobile: true })}
            sx={{ mb: 2, borderBottom: 1, borderColor: 'divider' }}
          >
            {sections.map((s) => (
              <Tab key={s.id} value={s.id} label={s.label} />
            ))}
          </Tabs>
        </Box>
      ) : (
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
      )}
      <Box sx={mobile ? undefined : { flex: 1, minWidth: 0 }} component="section" aria-label={current?.label}>
        {children}
      </Box>
    </Box>
  );
}
