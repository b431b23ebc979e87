__version__ = "3.81.1"
