"""`python -m desktop_app.demo_server`: serve the demo over stdio."""

from desktop_app.demo_server import run

if __name__ == "__main__":
    run()
