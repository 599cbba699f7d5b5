/** Entry point of the console's browser app (bundled by ../bundle.ts). */
import { render } from 'preact';
import { App } from './app.tsx';
import { interceptLinks } from './router.ts';
import { takeTokenFromAddress } from './token.ts';
import './styles.css';

takeTokenFromAddress();
const root = document.getElementById('app')!;
interceptLinks(root);
render(<App />, root);
