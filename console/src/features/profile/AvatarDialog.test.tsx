import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { stubApi } from '../../test-support/api-stub';
import { aMe } from '../../test-support/fixtures';
import { clearToasts, renderWithProviders } from '../../test-support/render';
import { initials, isAllowedAvatar } from './avatar';
import { ProfileSection } from './ProfileSection';

const ME = aMe();

beforeEach(() => {
  // jsdom has no object URLs; the preview only needs one to exist.
  URL.createObjectURL = vi.fn(() => 'blob:preview');
  URL.revokeObjectURL = vi.fn();
});
afterEach(() => {
  vi.unstubAllGlobals();
  clearToasts();
});

describe('avatar extension check', () => {
  it.each([
    ['me.jpg', true],
    ['me.jpeg', true],
    ['me.png', true],
    ['ME.PNG', true],
    ['holiday.photo.JpEg', true],
    ['me.gif', false],
    ['me.webp', false],
    ['me.svg', false],
    ['png', false],
    ['me.png.exe', false],
    ['me', false],
  ])('%s → %s', (name, allowed) => {
    expect(isAllowedAvatar(name)).toBe(allowed);
  });

  it.each([
    ['Ada', 'Lovelace', 'ada@example.com', 'AL'],
    ['', '', 'ada@example.com', 'A'],
    [' grace ', 'hopper', '', 'GH'],
  ])('initials of %j %j (%s) → %s', (first, last, email, expected) => {
    expect(initials(first, last, email)).toBe(expected);
  });
});

const image = (name: string, type: string) =>
  new File([new Uint8Array([0x89, 0x50, 0x4e, 0x47])], name, { type });
const drop = (file: File) =>
  fireEvent.drop(screen.getByTestId('avatar-drop'), { dataTransfer: { files: [file], types: ['Files'] } });

async function openDialog() {
  await userEvent.click(screen.getByRole('button', { name: 'Change avatar' }));
  return screen.findByRole('dialog', { name: 'Avatar' });
}

// jsdom renders MUI slowly when every test file runs at once.
describe('avatar dialog', { timeout: 15_000 }, () => {
  it('warns about another extension and keeps Save disabled', async () => {
    const calls = stubApi(() => undefined);
    renderWithProviders(<ProfileSection me={ME} />);
    const dialog = await openDialog();

    drop(image('cat.gif', 'image/gif'));
    expect(await screen.findByText('Invalid extension')).toBeInTheDocument();
    expect(screen.getByText('Only .jpg, .jpeg and .png images are accepted.')).toBeInTheDocument();
    expect(within(dialog).getByRole('button', { name: 'Save' })).toBeDisabled();

    // Browsing goes through the same check.
    fireEvent.change(screen.getByTestId('avatar-input'), {
      target: { files: [image('notes.txt', 'text/plain')] },
    });
    expect(screen.getAllByText('Invalid extension')).toHaveLength(2);
    expect(calls.filter((c) => c.method === 'PUT')).toHaveLength(0);
  });

  it("shows the server's message when it refuses the content, and stays open", async () => {
    const calls = stubApi(({ method, path }) =>
      method === 'PUT' && path === `/user/${ME.id}/avatar`
        ? { status: 422, error: 'file_body: only png and jpeg images', code: 'invalid_type' }
        : undefined,
    );
    renderWithProviders(<ProfileSection me={ME} />);
    const dialog = await openDialog();

    drop(image('fake.png', 'image/png'));
    expect(within(dialog).getByText('fake.png')).toBeInTheDocument();
    expect(within(dialog).getByRole('img', { name: 'Avatar preview' })).toHaveAttribute(
      'src',
      'blob:preview',
    );
    await userEvent.click(within(dialog).getByRole('button', { name: 'Save' }));

    expect(await screen.findByText('file_body: only png and jpeg images')).toBeInTheDocument();
    expect(screen.getByRole('dialog', { name: 'Avatar' })).toBeInTheDocument();
    const put = calls.find((c) => c.method === 'PUT')!;
    // The image itself is the body (a Blob of the Node realm, hence no instanceof).
    expect(put.body).toMatchObject({ size: 4, type: 'image/png' });
  });

  it('uploads the chosen image, closes and says so', async () => {
    const calls = stubApi(({ method, path }) => {
      if (method === 'PUT' && path === `/user/${ME.id}/avatar`)
        return { result: { type: 'image/png', size: 4 } };
      if (method === 'GET' && path === `/user/${ME.id}/avatar`) return { result: null };
      return undefined;
    });
    renderWithProviders(<ProfileSection me={ME} />);
    const dialog = await openDialog();
    fireEvent.change(screen.getByTestId('avatar-input'), {
      target: { files: [image('me.jpeg', 'image/jpeg')] },
    });
    await userEvent.click(within(dialog).getByRole('button', { name: 'Save' }));

    expect(await screen.findByText('Avatar saved.')).toBeInTheDocument();
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(calls.find((c) => c.method === 'PUT')?.path).toBe(`/user/${ME.id}/avatar`);
  });
});
