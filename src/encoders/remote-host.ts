/** The model host when none is configured: the Hugging Face hub. Its own module, so the CLI can name it without loading transformers.js. */
export const DEFAULT_REMOTE_HOST = 'https://huggingface.co/';
