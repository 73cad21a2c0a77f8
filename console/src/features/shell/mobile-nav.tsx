import { createContext, useContext, useMemo, useState, type ReactNode } from 'react';

interface MobileNavState {
  open: boolean;
  setOpen: (open: boolean) => void;
}

// Outside a Shell (component tests of a single screen) the drawer is simply never open.
const MobileNavContext = createContext<MobileNavState>({ open: false, setOpen: () => {} });

/**
 * Whether the mobile navigation drawer is open, shared with the screens: the dashboard's filter bar
 * is hidden while it is (spec 3 §2.1).
 */
export function MobileNavProvider({ children }: { children: ReactNode }) {
  const [open, setOpen] = useState(false);
  const value = useMemo(() => ({ open, setOpen }), [open]);
  return <MobileNavContext.Provider value={value}>{children}</MobileNavContext.Provider>;
}

export const useMobileNav = () => useContext(MobileNavContext);
