"""The Mini App: a picture of the table in the private chat, live, played
through the same service path as the text buttons. See docs/webapp-api.md."""
