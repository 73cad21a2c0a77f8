import { Box, Typography } from '@mui/material';
import { useTranslation } from 'react-i18next';

const SIZES = {
  /** In the top bar. */
  small: { mark: 28, gap: 1, name: { fontSize: 18, fontWeight: 700, letterSpacing: 0.2 } },
  /** Above the card of the screens before sign-in. */
  large: { mark: 40, gap: 1.5, name: { fontSize: 26, fontWeight: 600, letterSpacing: 0.5 } },
} as const;

/** The Sandflow mark (the wave of /favicon.svg, inline so it needs no request) and its name. */
export function Logo({ size = 'small', showName = true }: { size?: keyof typeof SIZES; showName?: boolean }) {
  const { t } = useTranslation();
  const { mark, gap, name } = SIZES[size];
  return (
    <Box component="span" sx={{ display: 'inline-flex', alignItems: 'center', gap }}>
      <svg width={mark} height={mark} viewBox="0 0 32 32" aria-hidden="true" focusable="false">
        <rect width="32" height="32" rx="6" fill="#1e1e1e" />
        <path
          d="M6 22c4-8 8 4 12-4s6-6 8-6"
          stroke="#f4b860"
          strokeWidth="3"
          fill="none"
          strokeLinecap="round"
        />
      </svg>
      {showName && (
        <Typography component="span" sx={name}>
          {t('appName')}
        </Typography>
      )}
    </Box>
  );
}
