import { Box, Paper, Skeleton, Typography } from '@mui/material';

export interface StatCard {
  key: string;
  label: string;
  /** undefined while loading; null when it could not be loaded. */
  value: number | string | null | undefined;
  detail?: string;
  color?: string;
}

/** A row of counter cards. */
export function StatCards({ cards, label }: { cards: readonly StatCard[]; label: string }) {
  return (
    <Box
      role="list"
      aria-label={label}
      sx={{
        display: 'grid',
        gap: 2,
        // Three cards side by side down to 574 px; four as two rows of two there.
        gridTemplateColumns: {
          xs: `repeat(${cards.length % 3 === 0 ? 3 : 2}, minmax(0, 1fr))`,
          md: `repeat(${cards.length}, minmax(0, 1fr))`,
        },
      }}
    >
      {cards.map((card) => (
        <Paper
          key={card.key}
          role="listitem"
          aria-label={card.label}
          data-testid={`card-${card.key}`}
          variant="outlined"
          sx={{ p: 2, minWidth: 0 }}
        >
          <Typography variant="body2" component="div" sx={{ color: 'text.secondary' }} title={card.label}>
            {card.label}
          </Typography>
          <Typography
            variant="h4"
            component="p"
            sx={{
              fontWeight: 600,
              color: card.color,
              fontSize: { xs: '1.6rem', sm: '2.125rem' },
              overflowWrap: 'anywhere',
            }}
          >
            {card.value === undefined ? <Skeleton width={48} /> : card.value === null ? '–' : card.value}
          </Typography>
          {card.detail ? (
            <Typography variant="caption" sx={{ color: 'text.secondary' }}>
              {card.detail}
            </Typography>
          ) : null}
        </Paper>
      ))}
    </Box>
  );
}
