import { useMemo, useState } from 'react';
import { useEvents, useLatestEvents } from '../../api/queries';
import { dayKey, groupByDay, isEndOfLog, mergeEvents, newestId, splitCurrent } from './events-log';
import { EventsLog } from './EventsLog';

/**
 * /logs: the events log. Pages of 30 from 0 (newest first) come from the infinite query; page 0
 * is asked again every 15 s, and what is newer than the newest event seen when the log was
 * opened shows in 'Currently'.
 */
export default function LogsPage() {
  const events = useEvents();
  const pages = events.data?.pages;
  const firstPage = pages?.[0];

  // The newest event seen when the log was opened, and when: fixed once the first page is there.
  const [opened, setOpened] = useState<{ id: number; at: Date } | null>(null);
  if (opened === null && firstPage)
    setOpened({ id: newestId(firstPage), at: new Date(events.dataUpdatedAt || Date.now()) });

  const latest = useLatestEvents(opened ? firstPage : undefined, events.dataUpdatedAt);

  const { current, days } = useMemo(() => {
    const all = mergeEvents(...(pages ?? []), latest.data ?? []);
    const { current, logged } = splitCurrent(all, opened?.id ?? Number.POSITIVE_INFINITY);
    return { current, days: groupByDay(logged) };
  }, [pages, latest.data, opened]);

  return (
    <EventsLog
      current={current}
      since={opened?.at ?? null}
      days={days}
      today={dayKey(new Date())}
      loading={events.isPending}
      error={events.isError ? events.error.message : undefined}
      ended={isEndOfLog(pages)}
      loadingOlder={events.isFetchingNextPage}
      onLoadOlder={() => void events.fetchNextPage()}
      // A failed older page is asked again; a failed first load starts over.
      onRetry={() => void (pages ? events.fetchNextPage() : events.refetch())}
    />
  );
}
