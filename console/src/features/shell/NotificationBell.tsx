import NotificationsNoneOutlined from '@mui/icons-material/NotificationsNoneOutlined';
import {
  Badge,
  Box,
  Button,
  Divider,
  IconButton,
  List,
  ListItem,
  ListItemButton,
  Popover,
  Tooltip,
  Typography,
} from '@mui/material';
import { useQueryClient } from '@tanstack/react-query';
import { useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Link as RouterLink } from 'react-router';
import { markNotificationsSeen, useNotifications } from '../../api/queries';
import type { Notification } from '../../api/answers';
import { toastType } from '../toasts/toast-store';
import { notificationLink } from './realtime/messages';
import { relativeTime } from './relative-time';

const PALETTE = {
  primary: 'primary.main',
  info: 'info.main',
  success: 'success.main',
  warning: 'warning.main',
  danger: 'error.main',
} as const;

/** The bell of the signed-in person: the cached list of api/queries.ts (fetched once, fed by realtime). */
export function NotificationBell() {
  const client = useQueryClient();
  const { data } = useNotifications(true);
  return (
    <NotificationBellView
      items={data?.items ?? []}
      unseen={data?.unseen ?? 0}
      onOpen={() => markNotificationsSeen(client)}
    />
  );
}

export interface NotificationBellViewProps {
  items: Notification[];
  unseen: number;
  /** Opening the popover marks the notifications seen (spec 1 §2.2). */
  onOpen: () => void;
}

/** Badge (spec 1 §2.2: '9+' above 10 unseen, the count up to 10) and a popover with the last notifications, newest first. */
export function NotificationBellView({ items, unseen, onOpen }: NotificationBellViewProps) {
  const { t } = useTranslation('shell');
  const [anchor, setAnchor] = useState<HTMLElement | null>(null);
  // What was new when the popover opened stays marked while it is open.
  const [fresh, setFresh] = useState<ReadonlySet<number>>(new Set());
  const [now, setNow] = useState(() => Date.now());
  const close = () => setAnchor(null);

  const open = (target: HTMLElement) => {
    setFresh(new Set(items.filter((n) => !n.seen).map((n) => n.id)));
    setNow(Date.now());
    setAnchor(target);
    onOpen();
  };

  const when = (timestamp: string) => {
    const time = relativeTime(timestamp, now);
    return time.unit === 'minutes' || time.unit === 'hours'
      ? t(`time.${time.unit}`, { count: time.count })
      : t(`time.${time.unit}`);
  };

  const label = t('notifications.button');
  return (
    <>
      <Tooltip title={label}>
        <IconButton aria-label={label} onClick={(e) => open(e.currentTarget)} color="inherit">
          <Badge badgeContent={unseen > 10 ? '9+' : unseen} color="error" data-testid="notification-badge">
            <NotificationsNoneOutlined />
          </Badge>
        </IconButton>
      </Tooltip>
      <Popover
        open={Boolean(anchor)}
        anchorEl={anchor}
        onClose={close}
        anchorOrigin={{ vertical: 'bottom', horizontal: 'right' }}
        transformOrigin={{ vertical: 'top', horizontal: 'right' }}
        slotProps={{
          paper: {
            sx: { width: 'min(380px, calc(100vw - 16px))', mt: 1 },
            role: 'dialog',
            'aria-label': t('notifications.title'),
          },
        }}
      >
        <Box sx={{ px: 2, py: 1.5 }}>
          <Typography variant="subtitle1" component="h2" sx={{ fontWeight: 600 }}>
            {t('notifications.title')}
          </Typography>
        </Box>
        <Divider />
        {items.length === 0 ? (
          <Typography color="text.secondary" sx={{ px: 2, py: 3, textAlign: 'center' }}>
            {t('notifications.empty')}
          </Typography>
        ) : (
          <List disablePadding sx={{ maxHeight: 'min(420px, 60vh)', overflowY: 'auto' }}>
            {items.map((notification) => (
              <ListItem key={notification.id} disablePadding divider>
                <NotificationRow
                  notification={notification}
                  isNew={fresh.has(notification.id)}
                  when={when(notification.timestamp)}
                  newLabel={t('notifications.new')}
                  onFollow={close}
                />
              </ListItem>
            ))}
          </List>
        )}
        <Divider />
        <Box sx={{ p: 1, display: 'flex', justifyContent: 'center' }}>
          <Button
            component={RouterLink}
            to="/logs"
            onClick={close}
            size="small"
            sx={{ textTransform: 'none' }}
          >
            {t('notifications.viewAll')}
          </Button>
        </Box>
      </Popover>
    </>
  );
}

function NotificationRow(props: {
  notification: Notification;
  isNew: boolean;
  when: string;
  newLabel: string;
  onFollow: () => void;
}) {
  const { notification, isNew, when, newLabel, onFollow } = props;
  const body: ReactNode = (
    <Box sx={{ display: 'flex', gap: 1.5, width: '100%', alignItems: 'flex-start' }}>
      <Box
        component="span"
        aria-hidden="true"
        sx={{
          mt: 0.75,
          width: 8,
          height: 8,
          borderRadius: '50%',
          flexShrink: 0,
          bgcolor: PALETTE[toastType(notification.type)],
        }}
      />
      <Box sx={{ minWidth: 0, flex: 1 }}>
        <Box sx={{ display: 'flex', gap: 1, alignItems: 'baseline' }}>
          <Typography
            variant="subtitle2"
            component="span"
            sx={{ flex: 1, minWidth: 0, overflowWrap: 'anywhere', fontWeight: isNew ? 700 : 500 }}
          >
            {notification.title}
          </Typography>
          <Typography variant="caption" color="text.secondary" sx={{ flexShrink: 0 }}>
            {when}
          </Typography>
        </Box>
        {notification.text && (
          <Typography variant="body2" color="text.secondary" sx={{ overflowWrap: 'anywhere' }}>
            {notification.text}
          </Typography>
        )}
        {isNew && (
          <Typography variant="caption" color="primary" sx={{ fontWeight: 600 }}>
            {newLabel}
          </Typography>
        )}
      </Box>
    </Box>
  );
  // Notifications fetched from GET /notifications/new carry a link only for runs.
  const link = notification.link ?? notificationLink(notification.message_data);
  return link ? (
    <ListItemButton component={RouterLink} to={link} onClick={onFollow} sx={{ px: 2, py: 1.25 }}>
      {body}
    </ListItemButton>
  ) : (
    <Box sx={{ px: 2, py: 1.25, width: '100%' }}>{body}</Box>
  );
}
