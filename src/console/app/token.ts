/**
 * The token the console calls the API with. Kept in sessionStorage (this tab, until it closes)
 * or, when the person asks to be remembered, in localStorage (this browser).
 */
const KEY = 'quarry.token';

export function storedToken(): string {
  return sessionStorage.getItem(KEY) ?? localStorage.getItem(KEY) ?? '';
}

export function storeToken(token: string, remember: boolean): void {
  forgetToken();
  (remember ? localStorage : sessionStorage).setItem(KEY, token);
}

export function forgetToken(): void {
  sessionStorage.removeItem(KEY);
  localStorage.removeItem(KEY);
}

/**
 * A link from elsewhere (a reconciliation service's view URL) may carry `?token=`: it is kept for
 * this tab and removed from the address bar, so it is not bookmarked or shared by accident.
 */
export function takeTokenFromAddress(): void {
  const url = new URL(location.href);
  const token = url.searchParams.get('token');
  if (!token) return;
  storeToken(token, false);
  url.searchParams.delete('token');
  history.replaceState(history.state, '', url.pathname + url.search + url.hash);
}
