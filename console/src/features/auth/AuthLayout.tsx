import { Box, Card, CardContent, Link, Stack, Typography } from '@mui/material';
import { useEffect, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Logo } from '../../components/Logo';

/**
 * The platform's foundations, linking out (spec 1 §2.3's two sponsor logos): neutral
 * marks drawn here, not third-party images.
 */
export function FoundationLinks() {
  const { t } = useTranslation('auth');
  const mark = {
    width: 22,
    height: 22,
    viewBox: '0 0 24 24',
    'aria-hidden': true,
    focusable: false,
  } as const;
  const linkSx = { display: 'inline-flex', alignItems: 'center', gap: 0.75, color: 'text.secondary' };
  return (
    <Stack
      component="footer"
      direction="row"
      spacing={3}
      sx={{ justifyContent: 'center', alignItems: 'center', flexWrap: 'wrap', rowGap: 1 }}
    >
      <Typography variant="caption" color="text.secondary">
        {t('foundations')}
      </Typography>
      <Link
        href="https://kubernetes.io"
        target="_blank"
        rel="noopener noreferrer"
        underline="hover"
        sx={linkSx}
      >
        <svg {...mark}>
          <polygon
            points="12,2 19.8,5.8 21.7,14.2 16.3,21 7.7,21 2.3,14.2 4.2,5.8"
            fill="none"
            stroke="currentColor"
            strokeWidth="1.6"
          />
          <circle cx="12" cy="12.5" r="3" fill="none" stroke="currentColor" strokeWidth="1.6" />
        </svg>
        {t('kubernetes')}
      </Link>
      <Link
        href="https://argoproj.github.io"
        target="_blank"
        rel="noopener noreferrer"
        underline="hover"
        sx={linkSx}
      >
        <svg {...mark}>
          <circle cx="12" cy="10" r="7" fill="none" stroke="currentColor" strokeWidth="1.6" />
          <path
            d="M7 17l-2 5M12 17v5M17 17l2 5"
            stroke="currentColor"
            strokeWidth="1.6"
            strokeLinecap="round"
          />
        </svg>
        {t('argo')}
      </Link>
    </Stack>
  );
}

/** The screens before sign-in: no shell, a centred card on the dark background. */
export function AuthLayout({
  title,
  children,
  footer,
}: {
  title: string;
  children: ReactNode;
  footer?: ReactNode;
}) {
  const { t } = useTranslation();
  useEffect(() => {
    document.title = `${title} · ${t('appName')}`;
  }, [title, t]);
  return (
    <Box
      component="main"
      sx={{
        minHeight: '100vh',
        display: 'flex',
        flexDirection: 'column',
        alignItems: 'center',
        justifyContent: 'center',
        gap: 3,
        px: { xs: 1.5, sm: 2 },
        py: { xs: 3, sm: 6 },
        background: 'radial-gradient(ellipse at top, #23232b 0%, #121212 60%)',
      }}
    >
      <Logo size="large" />
      <Card elevation={6} sx={{ width: '100%', maxWidth: 460 }}>
        <CardContent sx={{ p: { xs: 2.5, sm: 4 }, '&:last-child': { pb: { xs: 2.5, sm: 4 } } }}>
          <Typography
            variant="h5"
            component="h1"
            sx={{ mb: 3, textAlign: 'center', overflowWrap: 'anywhere' }}
          >
            {title}
          </Typography>
          {children}
        </CardContent>
      </Card>
      {footer}
    </Box>
  );
}
