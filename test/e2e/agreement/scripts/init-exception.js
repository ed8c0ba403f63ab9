// An exception in the init context: exit 107.
throw new Error('init failed');
