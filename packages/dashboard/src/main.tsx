import { render } from "preact";
import { App } from "./app.js";
import { interceptLinks } from "./router.js";
import "./styles.css";

const root = document.getElementById("app");
if (root) {
  interceptLinks(root);
  render(<App />, root);
}
