// Vessel live view: the link's token: taken from the address once, then kept for this tab only, so the address bar,
// history and any bookmark stop carrying it and a reload still works while the token is valid.

const TOKEN_KEY = "vessel.liveView.token";

export function takeToken() {
  const fromUrl = new URLSearchParams(location.search).get("token");
  if (fromUrl) {
    try {
      sessionStorage.setItem(TOKEN_KEY, fromUrl);
    } catch {
      /* private mode: memory only */
    }
    history.replaceState(null, "", "/live-view");
    return fromUrl;
  }
  try {
    return sessionStorage.getItem(TOKEN_KEY);
  } catch {
    return null;
  }
}

export function forgetToken() {
  try {
    sessionStorage.removeItem(TOKEN_KEY);
  } catch {
    /* nothing kept */
  }
}

function tokenClaims(t) {
  try {
    return JSON.parse(atob(t.split(".")[1].replace(/-/g, "+").replace(/_/g, "/")));
  } catch {
    return {};
  }
}

/** When the token stops opening the view (its `exp`); the server decides, this only avoids hopeless retries. */
export function tokenExpiry(t) {
  const { exp } = tokenClaims(t);
  return typeof exp === "number" ? exp * 1000 : 0;
}

/** The session the token is for (its `sub`): named in the socket's address so any node can route it. */
export function sessionOf(t) {
  const { sub } = tokenClaims(t);
  return typeof sub === "string" && /^ses_[0-9A-Za-z]+$/.test(sub) ? sub : "";
}
