import { act, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { renderWithProviders } from '../../test-support/render';
import { BotCheck } from './BotCheck';

afterEach(() => {
  vi.unstubAllGlobals();
  for (const script of document.querySelectorAll('script')) script.remove();
});

const scripts = () => [...document.head.querySelectorAll<HTMLScriptElement>('script')];

/** The global function the script's `onload=` parameter names. */
function onloadOf(script: HTMLScriptElement) {
  const name = new URL(script.src).searchParams.get('onload')!;
  return (window as unknown as Record<string, () => void>)[name]!;
}

describe('BotCheck without its provider on the page', () => {
  it('adds the script once for two widgets, with explicit rendering, and draws both once it has loaded', async () => {
    const onToken = vi.fn();
    const config = { provider: 'recaptcha', site_key: 'site-key-1' } as const;
    renderWithProviders(
      <>
        <BotCheck config={config} onToken={onToken} />
        <BotCheck config={config} onToken={onToken} />
      </>,
    );
    await waitFor(() => expect(scripts()).toHaveLength(1));
    const script = scripts()[0]!;
    expect(script.src).toMatch(
      /^https:\/\/www\.google\.com\/recaptcha\/api\.js\?render=explicit&onload=\w+$/,
    );
    expect(script.async).toBe(true);

    let rendered = 0;
    const render = vi.fn(() => rendered++);
    vi.stubGlobal('grecaptcha', { render, reset: vi.fn() });
    act(() => onloadOf(script)());
    await waitFor(() => expect(render).toHaveBeenCalledTimes(2));
    expect(render).toHaveBeenCalledWith(
      expect.any(HTMLElement),
      expect.objectContaining({ sitekey: 'site-key-1', theme: 'dark' }),
    );
    expect(scripts()).toHaveLength(1);
  });

  it('says inline which provider could not be loaded, and tries again on the next visit', async () => {
    const config = { provider: 'hcaptcha', site_key: 'site-key-1' } as const;
    const first = renderWithProviders(<BotCheck config={config} onToken={() => {}} />);
    await waitFor(() => expect(scripts()).toHaveLength(1));
    expect(scripts()[0]!.src).toMatch(/^https:\/\/js\.hcaptcha\.com\/1\/api\.js\?render=explicit&onload=/);
    act(() => void scripts()[0]!.dispatchEvent(new Event('error')));
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'The hCaptcha bot check could not be loaded, so registration is not possible right now.',
    );
    expect(scripts()).toHaveLength(0);

    first.unmount();
    renderWithProviders(<BotCheck config={config} onToken={() => {}} />);
    await waitFor(() => expect(scripts()).toHaveLength(1));
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('removes its widget when it leaves the page, and clears the token', async () => {
    const turnstile = { render: vi.fn(() => 'widget-7'), reset: vi.fn(), remove: vi.fn() };
    vi.stubGlobal('turnstile', turnstile);
    const onToken = vi.fn();
    const view = renderWithProviders(
      <BotCheck config={{ provider: 'turnstile', site_key: 'site-key-1' }} onToken={onToken} />,
    );
    await waitFor(() => expect(turnstile.render).toHaveBeenCalledTimes(1));
    view.unmount();
    expect(turnstile.remove).toHaveBeenCalledWith('widget-7');
    expect(onToken).toHaveBeenLastCalledWith(null);
    expect(scripts()).toHaveLength(0);
  });
});
