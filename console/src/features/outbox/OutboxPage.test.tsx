import { screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { stubApi } from '../../test-support/api-stub';
import { renderWithProviders } from '../../test-support/render';
import OutboxPage from './OutboxPage';

const mail = {
  id: 3,
  to: 'ada@example.org',
  subject: 'Confirm your e-mail',
  text: 'Open http://localhost:8080/verification/abc123 to confirm.',
  created_at: '2026-11-22T10:00:00.000Z',
};

describe('mail outbox', () => {
  it('lists the mails with their links clickable', async () => {
    stubApi({ 'GET /admin/outbox': () => ({ result: [mail] }) });
    renderWithProviders(<OutboxPage />);
    expect(await screen.findByRole('heading', { name: 'Confirm your e-mail' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'http://localhost:8080/verification/abc123' })).toHaveAttribute(
      'href',
      'http://localhost:8080/verification/abc123',
    );
    expect(screen.getByText(/ada@example\.org/)).toBeInTheDocument();
  });

  it('says when the outbox is empty', async () => {
    stubApi({ 'GET /admin/outbox': () => ({ result: [] }) });
    renderWithProviders(<OutboxPage />);
    expect(await screen.findByText('No mail in the outbox.')).toBeInTheDocument();
  });

  it("shows the server's refusal", async () => {
    stubApi({ 'GET /admin/outbox': () => ({ status: 403, error: 'Forbidden' }) });
    renderWithProviders(<OutboxPage />);
    expect(await screen.findByText('Forbidden')).toBeInTheDocument();
  });
});
