/** The login form: a key becomes an HttpOnly session cookie (`POST /auth/session`); the page keeps no key. */
import { useState } from 'preact/hooks';
import { api } from './api.js';
import type { Who } from './types.js';

/** Asks for an API key and logs in with it. */
export function Login({ onLogin }: { readonly onLogin: (who: Who) => void }) {
  const [key, setKey] = useState('');
  const [error, setError] = useState<string | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event): Promise<void> => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const who = await api.login(key.trim());
      setKey('');
      onLogin(who);
    } catch (failure) {
      setError(failure instanceof Error ? failure.message : String(failure));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="login card" onSubmit={(event) => void submit(event)} aria-labelledby="login-title">
      <h1 id="login-title">Log in</h1>
      <p class="muted">This server needs an API key. It is sent once; the browser then keeps only a session cookie.</p>
      <label for="api-key">API key</label>
      <input
        id="api-key"
        name="key"
        type="password"
        autoComplete="off"
        required
        value={key}
        onInput={(event) => setKey((event.target as HTMLInputElement).value)}
      />
      {error !== undefined && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      <button type="submit" disabled={busy || key.trim() === ''}>
        Log in
      </button>
    </form>
  );
}
