/**
 * The chatstate web session browser: a small client of this server's API, built into
 * `dist/web/` at package build time and served by `chatstate serve` at `/`.
 */
import 'uplot/dist/uPlot.min.css';
import './styles.css';
import { render } from 'preact';
import { App } from './app.js';
import { applyTheme, storedTheme } from './theme.js';

applyTheme(storedTheme());
const root = document.getElementById('app');
if (root !== null) render(<App />, root);
