import { Box } from '@mui/material';
import { Link as RouterLink } from 'react-router';
import { Logo } from '../../components/Logo';

/** The logo, linking home (the dashboard). */
export function HomeLink({ label, showName = true }: { label: string; showName?: boolean }) {
  return (
    <Box
      component={RouterLink}
      to="/dashboard"
      aria-label={label}
      sx={{
        display: 'flex',
        alignItems: 'center',
        color: 'text.primary',
        textDecoration: 'none',
        flexShrink: 0,
        borderRadius: 1,
        '&:focus-visible': { outline: '2px solid', outlineColor: 'primary.main', outlineOffset: 2 },
      }}
    >
      <Logo showName={showName} />
    </Box>
  );
}
