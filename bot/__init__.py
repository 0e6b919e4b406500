"""The Telegram side: aiogram handlers, keyboards, rendering and message delivery."""
