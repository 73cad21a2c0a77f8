// The real registry for cross-package suites; it lives with the image store that its own tests drive.
export * from '@sandflow/images/testing';
