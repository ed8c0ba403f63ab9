// An exception in the init context: exit code 107.
throw new Error('boom in init');
