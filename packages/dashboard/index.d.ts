/** Absolute path of the built app (index.html and assets/), written by `npm run build`. */
export declare const dashboardDir: string;
/** URL patterns the single-page app renders (the server answers index.html for them). */
export declare const pagePatterns: readonly string[];
