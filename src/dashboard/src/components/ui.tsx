import { useEffect, useState, type ButtonHTMLAttributes, type ReactNode } from "react";
import type { ApiError } from "../lib/api.ts";
import { copyText } from "../lib/browser.ts";
import { AlertIcon, CheckIcon, CopyIcon, LockIcon } from "./icons.tsx";

type ButtonProps = ButtonHTMLAttributes<HTMLButtonElement> & {
  variant?: "primary" | "secondary" | "danger" | "ghost";
  size?: "sm" | "md";
  pending?: boolean;
};

export function Button({ variant = "secondary", size = "md", pending, className, children, disabled, type = "button", ...rest }: ButtonProps) {
  return (
    <button
      type={type}
      className={["btn", `btn-${variant}`, size === "sm" ? "btn-sm" : "", className ?? ""].join(" ").trim()}
      disabled={disabled || pending}
      aria-busy={pending || undefined}
      {...rest}
    >
      {pending ? <Spinner /> : null}
      {children}
    </button>
  );
}

export function Spinner({ label }: { label?: string }) {
  return <span className="spinner" role={label ? "status" : undefined} aria-label={label} aria-hidden={label ? undefined : true} />;
}

/** A whole-area loading state with a label for screen readers. */
export function Loading({ label = "Loading…" }: { label?: string }) {
  return (
    <div className="loading" role="status">
      <Spinner />
      <span>{label}</span>
    </div>
  );
}

/** Rows of grey bars while a table's first answer is on its way. */
export function SkeletonRows({ rows = 4, cols }: { rows?: number; cols: number }) {
  return (
    <>
      {Array.from({ length: rows }, (_, r) => (
        <tr key={r} className="skeleton-row" aria-hidden="true">
          {Array.from({ length: cols }, (_, c) => (
            <td key={c}>
              <span className="skeleton" />
            </td>
          ))}
        </tr>
      ))}
    </>
  );
}

export function Badge({
  tone = "neutral",
  children,
  dot,
}: {
  tone?: "neutral" | "green" | "amber" | "red" | "blue" | "violet";
  children: ReactNode;
  dot?: boolean;
}) {
  return (
    <span className={`badge badge-${tone}`}>
      {dot ? <span className="badge-dot" aria-hidden="true" /> : null}
      {children}
    </span>
  );
}

export function PageHeader({ title, description, actions }: { title: ReactNode; description?: ReactNode; actions?: ReactNode }) {
  return (
    <header className="page-header">
      <div className="page-header-text">
        <h1 tabIndex={-1} className="page-title">
          {title}
        </h1>
        {description ? <p className="page-description">{description}</p> : null}
      </div>
      {actions ? <div className="page-actions">{actions}</div> : null}
    </header>
  );
}

export function EmptyState({
  icon,
  title,
  children,
  action,
  page,
}: {
  icon?: ReactNode;
  title: string;
  children?: ReactNode;
  action?: ReactNode;
  page?: boolean;
}) {
  const Heading = page ? "h1" : "h2";
  return (
    <div className="empty">
      {icon ? <div className="empty-icon">{icon}</div> : null}
      <Heading className="empty-title" tabIndex={page ? -1 : undefined}>
        {title}
      </Heading>
      {children ? <div className="empty-body">{children}</div> : null}
      {action ? <div className="empty-action">{action}</div> : null}
    </div>
  );
}

/** What the server said, readably: title, message, and the fields it named. */
export function ErrorNotice({ error, onRetry, compact }: { error: ApiError; onRetry?: () => void; compact?: boolean }) {
  if (error.code === "FORBIDDEN" && !compact) return <Denied detail={error.message} />;
  return (
    <div className={`notice notice-error${compact ? " notice-compact" : ""}`} role="alert">
      <AlertIcon className="notice-icon" />
      <div className="notice-body">
        <p className="notice-title">{error.title}</p>
        <p>{error.message}</p>
        {error.fields.length > 0 ? (
          <ul className="notice-fields">
            {error.fields.map((f) => (
              <li key={f.field + f.message}>
                <code>{f.field.replace(/^(body|query|input)\./, "")}</code> {f.message}
              </li>
            ))}
          </ul>
        ) : null}
        {error.code === "LAST_OWNER" ? (
          <p className="notice-hint">
            Every workspace keeps at least one owner, so nobody is ever locked out of it. Make another member an owner first, then change this role or remove
            this person.
          </p>
        ) : null}
        {onRetry ? (
          <Button size="sm" onClick={onRetry} className="notice-retry">
            Try again
          </Button>
        ) : null}
      </div>
    </div>
  );
}

export function Notice({ tone = "info", title, children }: { tone?: "info" | "warning"; title?: string; children: ReactNode }) {
  return (
    <div className={`notice notice-${tone}`}>
      <AlertIcon className="notice-icon" />
      <div className="notice-body">
        {title ? <p className="notice-title">{title}</p> : null}
        {children}
      </div>
    </div>
  );
}

/** The permission-denied state of a page or panel. */
export function Denied({ detail, role }: { detail?: string; role?: string }) {
  return (
    <div className="empty denied" role="alert">
      <div className="empty-icon">
        <LockIcon />
      </div>
      <h2 className="empty-title">You don’t have access to this</h2>
      <div className="empty-body">
        <p>{detail ?? "Your role in this workspace does not allow it."}</p>
        {role ? <p>Your role here is {role.toLowerCase()}. Ask an owner or an admin of the workspace if you need more.</p> : null}
      </div>
    </div>
  );
}

export function CopyButton({
  text,
  label = "Copy",
  className,
  onCopied,
  size = "sm",
}: {
  text: string;
  label?: string;
  className?: string;
  onCopied?: () => void;
  size?: "sm" | "md";
}) {
  const [state, setState] = useState<"idle" | "copied" | "failed">("idle");
  useEffect(() => {
    if (state === "idle") return;
    const t = setTimeout(() => setState("idle"), 2000);
    return () => clearTimeout(t);
  }, [state]);
  return (
    <button
      type="button"
      className={`btn btn-secondary${size === "sm" ? " btn-sm" : ""} copy-btn ${className ?? ""}`}
      onClick={async () => {
        const ok = await copyText(text);
        setState(ok ? "copied" : "failed");
        if (ok) onCopied?.();
      }}
    >
      {state === "copied" ? <CheckIcon /> : <CopyIcon />}
      <span aria-live="polite">{state === "copied" ? "Copied" : state === "failed" ? "Copy failed" : label}</span>
    </button>
  );
}

/** A labelled form control with its hint and error, wired for screen readers. */
export function Field({ label, hint, error, children, id }: { label: ReactNode; hint?: ReactNode; error?: string; id: string; children: ReactNode }) {
  return (
    <div className={`field${error ? " field-invalid" : ""}`}>
      <label htmlFor={id} className="field-label">
        {label}
      </label>
      {children}
      {hint ? (
        <p id={`${id}-hint`} className="field-hint">
          {hint}
        </p>
      ) : null}
      {error ? (
        <p id={`${id}-error`} className="field-error" role="alert">
          {error}
        </p>
      ) : null}
    </div>
  );
}

/** The message for `field` among a validation error's fields (input names without their prefix). */
export function fieldError(error: ApiError | undefined, ...names: string[]): string | undefined {
  return error?.fields.find((f) => names.includes(f.field.replace(/^(body|query|input)\./, "")))?.message;
}
