import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { App } from "./App.tsx";
// The stylesheet, in cascade order (later files win ties).
import "./styles/base.css";
import "./styles/controls.css";
import "./styles/shell.css";
import "./styles/page.css";
import "./styles/notices.css";
import "./styles/forms.css";
import "./styles/session.css";
import "./styles/inspector.css";
import "./styles/inspector-lists.css";
import "./styles/session-options.css";
import "./styles/webhooks.css";
import "./styles/sign-in.css";
import "./styles/narrow.css";

createRoot(document.getElementById("root")!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
