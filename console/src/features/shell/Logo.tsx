import { Box, Typography } from '@mui/material';
import { Link as RouterLink } from 'react-router';

/** The mark of /favicon.svg, inline so it needs no request. */
export function LogoMark({ size = 28 }: { size?: number }) {
  return (
    <svg width={size} height={size} viewBox="0 0 32 32" aria-hidden="true" focusable="false">
      <rect width="32" height="32" rx="6" fill="#1e1e1e" />
      <path
        d="M6 22c4-8 8 4 12-4s6-6 8-6"
        stroke="#f4b860"
        strokeWidth="3"
        fill="none"
        strokeLinecap="round"
      />
    </svg>
  );
}

/** Logo and name, linking home (the dashboard). */
export function Logo({ label, showName = true }: { label: string; showName?: boolean }) {
  return (
    <Box
      component={RouterLink}
      to="/dashboard"
      aria-label={label}
      sx={{
        display: 'flex',
        alignItems: 'center',
        gap: 1,
        color: 'text.primary',
        textDecoration: 'none',
        flexShrink: 0,
        borderRadius: 1,
        '&:focus-visible': { outline: '2px solid', outlineColor: 'primary.main', outlineOffset: 2 },
      }}
    >
      <LogoMark />
      {showName && (
        <Typography component="span" sx={{ fontWeight: 700, fontSize: 18, letterSpacing: 0.2 }}>
          Sandflow
        </Typography>
      )}
    </Box>
  );
}
