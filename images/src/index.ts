// @sandflow/images: container images without a container engine, for the local runner and the API.
export {};
