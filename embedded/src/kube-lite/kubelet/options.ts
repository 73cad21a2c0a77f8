// What `startKubeLite({ kubelet })` takes to run Pods on this machine (see kubelet.ts).
import type { CredentialsByHost, LayoutStore } from '@sandflow/images';

export interface KubeletOptions {
  /** Pods' folders live in `<dataDir>/kubelet/pods`; images in `<dataDir>/images` unless `layout` is given. */
  dataDir: string;
  /** The image layout pulls go into (the pull cache); unpacked roots in `<dataDir>/image-roots`. */
  layout?: LayoutStore;
  /** Registry credentials, or a function of the Pod's namespace that answers them. */
  credentials?: CredentialsByHost | ((namespace: string) => Promise<CredentialsByHost>);
  /** The bwrap binary; found on PATH when absent. */
  bwrap?: string;
}
