import { Alert, Box } from '@mui/material';
import { useEffect, useEffectEvent, useImperativeHandle, useRef, useState, type Ref } from 'react';
import { useTranslation } from 'react-i18next';
import type { BotCheckConfig } from '../../api/answers';

type Provider = BotCheckConfig['provider'];
type WidgetId = string | number;

/** What reCAPTCHA v2, hCaptcha and Turnstile have in common (explicit rendering). */
interface WidgetApi {
  render(container: HTMLElement, params: Record<string, unknown>): WidgetId | null | undefined;
  reset(id?: WidgetId): void;
  /** hCaptcha and Turnstile; reCAPTCHA has none (its container is dropped instead). */
  remove?(id?: WidgetId): void;
}

/**
 * The one place the providers differ: the name shown, the global their script defines and
 * the script (rendering only when asked). They share render(container, { sitekey, theme,
 * size, callback, 'expired-callback', 'error-callback' }), reset(id) and an `onload`
 * script parameter naming a global function called once the API is usable.
 */
export const BOT_CHECK_PROVIDERS: Record<Provider, { name: string; global: string; script: string }> = {
  recaptcha: {
    name: 'reCAPTCHA',
    global: 'grecaptcha',
    script: 'https://www.google.com/recaptcha/api.js?render=explicit',
  },
  hcaptcha: {
    name: 'hCaptcha',
    global: 'hcaptcha',
    script: 'https://js.hcaptcha.com/1/api.js?render=explicit',
  },
  turnstile: {
    name: 'Cloudflare Turnstile',
    global: 'turnstile',
    script: 'https://challenges.cloudflare.com/turnstile/v0/api.js?render=explicit',
  },
};

/** The widgets' normal width; a narrower container gets the compact one. */
const NORMAL_WIDTH = 304;

const scope = window as unknown as Record<string, unknown>;
const loads = new Map<Provider, Promise<WidgetApi>>();

function widgetApiOf(provider: Provider): WidgetApi | null {
  const api = scope[BOT_CHECK_PROVIDERS[provider].global] as Partial<WidgetApi> | undefined;
  return typeof api?.render === 'function' && typeof api.reset === 'function' ? (api as WidgetApi) : null;
}

/** The provider's API, its script added to the page once (again only after a failed load). */
function loadProvider(provider: Provider): Promise<WidgetApi> {
  const present = widgetApiOf(provider);
  if (present) return Promise.resolve(present);
  let load = loads.get(provider);
  if (!load) {
    load = new Promise<WidgetApi>((resolve, reject) => {
      const onload = `sandflowBotCheckLoaded_${provider}`;
      const script = document.createElement('script');
      const fail = () => {
        loads.delete(provider);
        delete scope[onload];
        script.remove();
        reject(new Error(`${BOT_CHECK_PROVIDERS[provider].name} could not be loaded`));
      };
      scope[onload] = () => {
        delete scope[onload];
        const api = widgetApiOf(provider);
        if (api) resolve(api);
        else fail();
      };
      script.src = `${BOT_CHECK_PROVIDERS[provider].script}&onload=${onload}`;
      script.async = true;
      script.onerror = fail;
      document.head.appendChild(script);
    });
    loads.set(provider, load);
  }
  return load;
}

export interface BotCheckHandle {
  /** A new challenge (tokens are single-use): the token is cleared until it is solved again. */
  reset(): void;
}

/**
 * The registration's bot-check widget (spec 1 §2.4), drawn by the configured provider with
 * its site key in the dark theme. Reports each token, and null when it expires, fails or is
 * reset; a script that cannot be loaded is said inline.
 */
export function BotCheck({
  config,
  onToken,
  ref,
}: {
  config: BotCheckConfig;
  onToken: (token: string | null) => void;
  ref?: Ref<BotCheckHandle>;
}) {
  const { t } = useTranslation('auth');
  const { provider, site_key: siteKey } = config;
  const host = useRef<HTMLDivElement>(null);
  const widget = useRef<{ api: WidgetApi; id: WidgetId | undefined } | null>(null);
  const [unavailable, setUnavailable] = useState(false);
  const report = useEffectEvent((token: string | null) => onToken(token));

  useEffect(() => {
    // A container per widget: reCAPTCHA cannot render twice into one element.
    const slot = document.createElement('div');
    host.current!.appendChild(slot);
    let live = true;
    loadProvider(provider).then(
      (api) => {
        if (!live) return;
        const width = host.current?.clientWidth ?? 0;
        const id = api.render(slot, {
          sitekey: siteKey,
          theme: 'dark',
          size: width > 0 && width < NORMAL_WIDTH ? 'compact' : 'normal',
          callback: (token: string) => report(token),
          'expired-callback': () => report(null),
          'error-callback': () => report(null),
        });
        widget.current = { api, id: id ?? undefined };
      },
      () => {
        if (live) setUnavailable(true);
      },
    );
    return () => {
      live = false;
      const current = widget.current;
      widget.current = null;
      current?.api.remove?.(current.id);
      slot.remove();
      report(null);
    };
  }, [provider, siteKey]);

  useImperativeHandle(
    ref,
    () => ({
      reset() {
        const current = widget.current;
        if (current) current.api.reset(current.id);
        onToken(null);
      },
    }),
    [onToken],
  );

  return (
    <>
      {/* The widgets' height is held while the script loads, so the form does not jump. */}
      <Box
        ref={host}
        sx={{ display: unavailable ? 'none' : 'flex', justifyContent: 'center', minHeight: 65 }}
      />
      {unavailable && (
        <Alert severity="error" variant="outlined">
          {t('botCheckUnavailable', { provider: BOT_CHECK_PROVIDERS[provider].name })}
        </Alert>
      )}
    </>
  );
}
